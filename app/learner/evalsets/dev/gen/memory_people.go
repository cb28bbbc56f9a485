package main

// Maya: a software engineer moving from Berlin to Lisbon with her dog.
var mayaSessions = []msession{
	{person: "maya", date: "2026-09-05 18:20", pairs: []pair{
		p("maya.dog", "We adopted a dog today!! A two year old beagle from the Tierheim, we named him Biscuit.", "Congratulations! Beagles are lovely. Do you need tips for the first days?"),
		p("", "yes, what should the first week look like?", "Keep a calm routine: short walks, a quiet corner, regular feeding times, and few visitors."),
		p("maya.dogfood", "he's a picky eater, the shelter said he only eats the salmon kibble", "Stick with it for now and switch gradually over ten days if you want to change."),
	}},
	{person: "maya", date: "2026-09-12 09:05", pairs: []pair{
		p("maya.move", "Big news: I accepted the move to Lisbon. Moving date is October 15.", "Exciting! Want a checklist for moving abroad with a dog?"),
		p("maya.dogtravel", "yes, especially how Biscuit can travel — I'd rather drive than fly him in cargo", "Driving works: EU pet passport, rabies vaccination at least 21 days before, microchip, and breaks every two hours."),
	}},
	{person: "maya", date: "2026-09-19 20:40", pairs: []pair{
		p("maya.portuguese", "I signed up for Portuguese lessons, every Tuesday evening at the Instituto Camões", "Great. Practise a little every day between lessons."),
		p("", "any good apps?", "Try a spaced-repetition deck and podcasts for European Portuguese rather than Brazilian."),
	}},
	{person: "maya", date: "2026-09-27 11:15", pairs: []pair{
		p("maya.allergy", "I'm allergic to shellfish, how do I say that at restaurants in Portugal?", "\"Sou alérgica a marisco.\" Ask: \"Isto tem marisco?\""),
		p("maya.wedding", "perfect, I'll need it for my sister Inês's wedding in Porto on October 10, the menu has a seafood course", "Tell the caterers in advance so they prepare a separate plate."),
	}},
	{person: "maya", date: "2026-10-03 16:30", pairs: []pair{
		p("maya.movedelay", "The move got pushed back: the flat in Alfama isn't ready, so now we move on November 1 instead.", "That's annoying but gives you time. Do you need to change the van booking?"),
		p("maya.flat", "yes. The flat is a two-bedroom in Alfama with a small terrace, rent is 1,650 euros", "Noted. I can help you draft the email to the moving company."),
	}},
	{person: "maya", date: "2026-10-12 21:00", pairs: []pair{
		p("maya.weddingdone", "Back from Inês's wedding, it was beautiful. I gave a speech and only cried twice.", "That sounds wonderful. How did the speech go?"),
		p("", "people laughed at the right moments, so good", "Well done!"),
	}},
	{person: "maya", date: "2026-10-20 08:45", pairs: []pair{
		p("maya.job", "I got the job at Tiller, the fintech! I start on November 2 as a senior backend engineer.", "Congratulations! That's right after the move."),
		p("maya.salary", "yes, tight timing. The offer was 78k, I negotiated up to 84k", "Nice negotiation."),
	}},
	{person: "maya", date: "2026-10-26 13:10", pairs: []pair{
		p("maya.car", "Sold my old Golf today for 6,200 euros, no point bringing it to Lisbon", "Good price for an older Golf."),
		p("maya.van", "and booked a van with a driver for October 31, Biscuit rides with me in a rental car", "Sounds like a plan. Pack a bag for Biscuit with food, water and his blanket."),
	}},
	{person: "maya", date: "2026-11-08 19:30", pairs: []pair{
		p("maya.vet", "Found a vet in Lisbon for Biscuit, Clínica do Castelo, his first check-up is on November 14", "Great. Bring his pet passport."),
		p("maya.firstweek", "first week at Tiller was intense, I'm on the payments team", "Settling in takes time. How's the team?"),
	}},
	{person: "maya", date: "2026-11-21 10:00", pairs: []pair{
		p("maya.vetresult", "Biscuit's check-up went fine, but the vet says he's 2 kg overweight, so less kibble and longer walks", "Try measured portions and two long walks a day."),
		p("maya.running", "I started running along the river with him in the mornings, 5 km", "Perfect for both of you."),
	}},
}

// Tom: a history teacher in Leeds training for a marathon.
var tomSessions = []msession{
	{person: "tom", date: "2026-09-02 07:10", pairs: []pair{
		p("tom.marathon", "I'm running the York marathon on October 11, aiming for under 3:45", "That's 8:35 per mile. How is the training going?"),
		p("tom.longrun", "did 18 miles on Sunday, felt okay until mile 15", "Normal at this stage; practise fuelling on long runs."),
	}},
	{person: "tom", date: "2026-09-10 21:30", pairs: []pair{
		p("tom.ella", "Dropped our daughter Ella at university today, she's studying chemistry in Manchester", "A big day! How are you feeling?"),
		p("", "the house is very quiet", "That's very common. Plan something for yourselves this weekend."),
	}},
	{person: "tom", date: "2026-09-16 18:45", pairs: []pair{
		p("tom.knee", "my left knee hurts on the outside after long runs. physio says IT band", "Foam rolling, hip strengthening and lower mileage for a week or two usually help."),
		p("tom.physio", "physio appointments are Thursdays at 5 with a guy called Gareth", "Good, follow his plan."),
	}},
	{person: "tom", date: "2026-09-24 20:00", pairs: []pair{
		p("tom.bookclub", "Our book club is reading The Remains of the Day this month, any discussion questions?", "How does Stevens's idea of dignity shape his choices? Is he a reliable narrator?"),
		p("", "good ones", "Enjoy the discussion."),
	}},
	{person: "tom", date: "2026-10-01 17:20", pairs: []pair{
		p("tom.garlic", "Planted garlic at the allotment today, two rows of Germidour", "Good timing. Mulch them and keep them weeded."),
		p("tom.blight", "the tomatoes got blight this year, I pulled them all", "Don't compost blighted plants; rotate next year."),
	}},
	{person: "tom", date: "2026-10-12 15:00", pairs: []pair{
		p("tom.marathonresult", "Finished York in 3:52! Missed the target but the knee held up", "Congratulations! A great result with an injury."),
		p("", "the last 6 miles were brutal", "They always are. Rest well."),
	}},
	{person: "tom", date: "2026-10-19 19:40", pairs: []pair{
		p("tom.bike", "Bought a road bike to cross-train, a second-hand Trek Domane for 650 pounds", "Good for the knee too. Get a bike fit."),
		p("tom.claire", "also I need to plan Claire's 50th birthday, it's on November 14, she's my wife", "Fun! Surprise party or a trip?"),
	}},
	{person: "tom", date: "2026-10-28 20:15", pairs: []pair{
		p("tom.party", "decided: a surprise party at the Cross Keys pub on Saturday 14 November, about 40 guests", "Great. Want a checklist and an invitation text?"),
		p("tom.cake", "yes, and Ella is baking a lemon drizzle cake for it", "Lovely touch."),
	}},
	{person: "tom", date: "2026-11-05 21:00", pairs: []pair{
		p("tom.school", "Parents evening tonight, I teach year 10 and year 12 history this year", "Long evening! Anything you want to prepare?"),
		p("tom.trip", "I'm organising the year 12 trip to Berlin in March, 28 students", "I can help with a risk assessment and the itinerary."),
	}},
	{person: "tom", date: "2026-11-16 11:30", pairs: []pair{
		p("tom.partydone", "The party was a huge success, Claire had no idea. She cried when Ella brought out the cake", "That's wonderful."),
		p("tom.nextrace", "next goal: the Manchester marathon in April, sub 3:45 for real this time", "Start a base block in January."),
	}},
}
